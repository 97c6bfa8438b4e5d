package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // decodes GIF originals
	"image/jpeg"
	"image/png"
	"strconv"
	"strings"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decodes WebP originals
)

// Thumbnail bounds: a side at most MaxThumbSide pixels, an original at
// most MaxThumbSource pixels (decoding a larger one would hold too much
// memory for a preview).
const (
	MaxThumbSide   = 1024
	MaxThumbSource = 50_000_000
)

// ThumbTypes are the media types thumbnails are made of.
var ThumbTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// ErrNotAnImage is an original that does not decode as an image of its
// type, or is too large to.
var ErrNotAnImage = errors.New("files: not an image a thumbnail is made of")

// ParseThumb reads ?thumb=WxH: each side 1 to MaxThumbSide pixels.
func ParseThumb(s string) (w, h int, ok bool) {
	ws, hs, found := strings.Cut(s, "x")
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	if !found || errW != nil || errH != nil || w < 1 || h < 1 || w > MaxThumbSide || h > MaxThumbSide {
		return 0, 0, false
	}
	return w, h, true
}

// ThumbKey is where the thumbnail of a project's file at w×h is kept:
// beside the originals, under thumbs/, so that the sweep (no row names
// it) removes it once it is older than the grace, and the next request
// makes it again.
func ThumbKey(project, name string, w, h int) string {
	return project + "/thumbs/" + strconv.Itoa(w) + "x" + strconv.Itoa(h) + "/" + name
}

// Thumbnail opens the thumbnail of the file key (of mediaType) that fits
// in w×h, keeping its proportions and never enlarging it, making and
// keeping it on first use. The thumbnail is PNG for PNG and GIF originals,
// JPEG for the others.
func Thumbnail(ctx context.Context, store Store, key, thumbKey, mediaType string, w, h int) (Object, string, error) {
	outType := "image/png"
	if mediaType == "image/jpeg" || mediaType == "image/webp" {
		outType = "image/jpeg"
	}
	if o, err := store.Open(ctx, thumbKey); err == nil {
		return o, outType, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, "", err
	}
	src, err := store.Open(ctx, key)
	if err != nil {
		return nil, "", err
	}
	cfg, _, err := image.DecodeConfig(src)
	if err != nil || int64(cfg.Width)*int64(cfg.Height) > MaxThumbSource {
		src.Close()
		return nil, "", ErrNotAnImage
	}
	if _, err := src.Seek(0, 0); err != nil {
		src.Close()
		return nil, "", err
	}
	img, _, err := image.Decode(src)
	src.Close()
	if err != nil {
		return nil, "", ErrNotAnImage
	}
	var out bytes.Buffer
	thumb := scaled(img, w, h)
	if outType == "image/png" {
		err = png.Encode(&out, thumb)
	} else {
		err = jpeg.Encode(&out, thumb, &jpeg.Options{Quality: 85})
	}
	if err != nil {
		return nil, "", fmt.Errorf("encode thumbnail: %w", err)
	}
	if _, err := store.Put(ctx, thumbKey, &out); err != nil {
		return nil, "", err
	}
	o, err := store.Open(ctx, thumbKey)
	return o, outType, err
}

// scaled fits img into w×h keeping its proportions, with Catmull-Rom
// resampling; an image that fits already is drawn as it is.
func scaled(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	if sw <= w && sh <= h {
		w, h = sw, sh
	} else if sw*h > sh*w {
		h = max(1, sh*w/sw)
	} else {
		w = max(1, sw*h/sh)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Over, nil)
	return dst
}
