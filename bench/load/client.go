package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// conn is one keep-alive HTTP/1.1 connection that sends prebuilt request
// bytes and reads the answer with a minimal parser (status line, headers,
// Content-Length or chunked body). It costs the load generator a few
// microseconds per request instead of net/http's client machinery, which
// matters when it shares two cores with the servers it measures.
type conn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
}

func (c *conn) close() {
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

// do sends req and reads the response. With body non-nil the response
// body is appended to it.
func (c *conn) do(req []byte, body *[]byte) (int, error) {
	if c.c == nil {
		nc, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
		if err != nil {
			return 0, err
		}
		c.c = nc
		if c.br == nil {
			c.br = bufio.NewReaderSize(nc, 32<<10)
		} else {
			c.br.Reset(nc)
		}
	}
	_ = c.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.c.Write(req); err != nil {
		c.close()
		return 0, err
	}
	status, keep, err := readResponse(c.br, body)
	if err != nil || !keep {
		c.close()
	}
	return status, err
}

var errMalformed = errors.New("malformed HTTP response")

func readResponse(br *bufio.Reader, body *[]byte) (status int, keepAlive bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, errMalformed
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, errMalformed
	}
	length, chunked, keepAlive := -1, false, true
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return status, false, err
		}
		if len(line) <= 2 {
			break
		}
		i := bytes.IndexByte(line, ':')
		if i < 0 {
			return status, false, errMalformed
		}
		name, value := line[:i], bytes.TrimSpace(line[i+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return status, false, errMalformed
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			keepAlive = !bytes.EqualFold(value, []byte("close"))
		}
	}
	switch {
	case chunked:
		for {
			line, err = br.ReadSlice('\n')
			if err != nil {
				return status, false, err
			}
			size := bytes.TrimSpace(line)
			if i := bytes.IndexByte(size, ';'); i >= 0 {
				size = size[:i]
			}
			n, err := strconv.ParseInt(string(size), 16, 64)
			if err != nil {
				return status, false, errMalformed
			}
			if n == 0 {
				for { // trailers, up to the empty line
					line, err = br.ReadSlice('\n')
					if err != nil {
						return status, false, err
					}
					if len(line) <= 2 {
						return status, keepAlive, nil
					}
				}
			}
			if err := readBody(br, int(n), body); err != nil {
				return status, false, err
			}
			if _, err := br.Discard(2); err != nil {
				return status, false, err
			}
		}
	case length >= 0:
		return status, keepAlive, readBody(br, length, body)
	default:
		return status, false, fmt.Errorf("response without length (status %d)", status)
	}
}

func readBody(br *bufio.Reader, n int, body *[]byte) error {
	if body == nil {
		_, err := br.Discard(n)
		return err
	}
	start := len(*body)
	*body = append(*body, make([]byte, n)...)
	_, err := io.ReadFull(br, (*body)[start:])
	return err
}
