// Command inproc serves the generated API of one database twice, without
// Caddy: on one address with the rate limiter and analytics recorder
// (as the module runs), on another without them (service option
// WithoutMetering). With -only metered or -only unmetered it serves one
// of the two, so that the driver can run them as two processes whose
// CPU times and garbage collectors do not mix. With the bench schema's public rules, a request
// without an Authorization header also skips key verification, so the
// load driver can measure what authentication and metering cost.
//
// The metered service applies a limited plan, so that the limiter counts
// and sets its headers as it does for a paying customer: the benchmark's
// account was made on the unlimited plan (the driver's Caddyfile default),
// which this service does not define, and an account whose plan is not
// defined gets the default plan's limits (plans.Set.Get).
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
)

// meteredPlan is limited, but far beyond what a benchmark sends in an hour.
var meteredPlan = plans.Plan{Name: "metered", RatePerHour: 1_000_000_000_000, Projects: plans.Unlimited}

func main() {
	dbURL := flag.String("db", "", "PostgreSQL URL of the benchmark database")
	conns := flag.Int("conns", 20, "database pool size of each service")
	pprofAddr := flag.String("pprof", "", "serve net/http/pprof on this address")
	only := flag.String("only", "", "serve only the metered or only the unmetered service, so each has a process of its own")
	flag.Parse()
	if *pprofAddr != "" {
		go func() { log.Println(http.ListenAndServe(*pprofAddr, nil)) }()
	}
	if *dbURL == "" {
		log.Fatal("inproc: -db is required")
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var servers []*http.Server
	var services []*service.Service
	for _, metered := range []bool{true, false} {
		if (*only == "metered" && !metered) || (*only == "unmetered" && metered) {
			continue
		}
		svc, err := service.New(service.Config{DatabaseURL: *dbURL, MaxOpenConns: *conns, Logger: logger,
			Plans: plans.Set{meteredPlan.Name: meteredPlan}, DefaultPlan: meteredPlan.Name, WithoutMetering: !metered})
		if err != nil {
			log.Fatal(err)
		}
		if err := svc.Start(context.Background()); err != nil {
			log.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		name := "metered"
		if !metered {
			name = "unmetered"
		}
		// The driver reads these lines to find the servers.
		os.Stdout.WriteString(name + " " + ln.Addr().String() + "\n")
		mux := http.NewServeMux()
		mux.Handle("/v1/", svc.API())
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = hs.Serve(ln) }()
		servers = append(servers, hs)
		services = append(services, svc)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i, hs := range servers {
		_ = hs.Shutdown(ctx)
		services[i].Close()
	}
}
