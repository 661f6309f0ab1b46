package main

import (
	"fmt"
	"html/template"
	"net"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"clusteremu/cluster"
	"clusteremu/policies/sched"
)

// The live view (run --listen): a status page and a Prometheus /metrics
// endpoint on a loopback address, read from cluster.Live, which copies
// the records under their lock: watching a run changes nothing in it.

// liveView is the live view's server; it serves until stop.
type liveView struct {
	ln   net.Listener
	srv  *http.Server
	done chan error
	mu   sync.Mutex
	c    *cluster.Cluster // nil until the cluster is built
}

// listenLive binds the live view's address before the run, so a busy or
// non-loopback address costs no run.
func listenLive(addr string) (*liveView, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: want host:port, such as 127.0.0.1:9090", addr)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--listen %s: the live view listens on a loopback address only (127.0.0.1, ::1 or localhost)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	return &liveView{ln: ln, done: make(chan error, 1)}, nil
}

// serve starts serving the cluster's state.
func (v *liveView) serve(c *cluster.Cluster) {
	v.mu.Lock()
	v.c = c
	v.mu.Unlock()
	reg := prometheus.NewRegistry()
	reg.MustRegister(&liveCollector{v})
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/", v.status)
	v.srv = &http.Server{Handler: mux}
	go func() { v.done <- v.srv.Serve(v.ln) }()
}

// addr is the address the view listens on (a port of 0 chosen).
func (v *liveView) addr() string { return v.ln.Addr().String() }

// stop closes the server and waits for it.
func (v *liveView) stop() {
	if v.srv == nil {
		v.ln.Close()
		return
	}
	v.srv.Close()
	<-v.done // http.ErrServerClosed: the run is over
}

func (v *liveView) status(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	v.mu.Lock()
	c := v.c
	v.mu.Unlock()
	s := c.Live()
	maps, reduces := s.Busy()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = statusPage.Execute(w, map[string]any{"S": s, "Maps": 100 * maps, "Reduces": 100 * reduces})
}

var statusPage = template.Must(template.New("status").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="2"><title>clusteremu: live</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}td,th{padding:2px 12px;text-align:left}</style></head>
<body><h1>clusteremu</h1>
<table>
<tr><th>emulated time</th><td>{{.S.Now}}</td></tr>
<tr><th>jobs</th><td>{{.S.Submitted}} submitted, {{.S.Ended}} ended ({{.S.Succeeded}} succeeded, {{.S.Failed}} failed)</td></tr>
<tr><th>map slots busy</th><td>{{printf "%.1f" .Maps}}% ({{index .S.Running 0}} of {{index .S.Slots 0}})</td></tr>
<tr><th>reduce slots busy</th><td>{{printf "%.1f" .Reduces}}% ({{index .S.Running 1}} of {{index .S.Slots 1}})</td></tr>
<tr><th>flows completed</th><td>{{.S.Completed}}, {{.S.FlowBytes}} bytes</td></tr>
</table>
{{if .S.Links}}<h2>busiest links, {{.S.LinksFrom}} to {{.S.LinksTo}}</h2>
<table>{{range .S.Links}}<tr><td>{{.Name}}</td><td>{{printf "%.1f" .Utilisation}}</td></tr>{{end}}</table>{{end}}
<p><a href="/metrics">/metrics</a> (Prometheus)</p>
</body></html>
`))

// liveCollector turns the cluster's live state into Prometheus metrics at
// each scrape.
type liveCollector struct{ v *liveView }

var (
	descNow      = prometheus.NewDesc("clusteremu_emulated_seconds", "Emulated time of the run.", nil, nil)
	descJobs     = prometheus.NewDesc("clusteremu_jobs", "Jobs by state: submitted, ended, succeeded, failed.", []string{"state"}, nil)
	descRunning  = prometheus.NewDesc("clusteremu_attempts_running", "Attempts running, by slot kind.", []string{"kind"}, nil)
	descSlots    = prometheus.NewDesc("clusteremu_slots", "The cluster's slots, by kind.", []string{"kind"}, nil)
	descAttempts = prometheus.NewDesc("clusteremu_attempts_ended_total", "Attempts ended, by outcome.", []string{"outcome"}, nil)
	descLink     = prometheus.NewDesc("clusteremu_link_utilisation", "Utilisation of the busiest links over the last sampled window.", []string{"link"}, nil)
	descBytes    = prometheus.NewDesc("clusteremu_flow_bytes_total", "Bytes carried by completed flows.", nil, nil)
)

// Describe implements prometheus.Collector.
func (*liveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descNow, descJobs, descRunning, descSlots, descAttempts, descLink, descBytes} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (l *liveCollector) Collect(ch chan<- prometheus.Metric) {
	l.v.mu.Lock()
	c := l.v.c
	l.v.mu.Unlock()
	s := c.Live()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descNow, s.Now.Seconds())
	for state, n := range map[string]int{"submitted": s.Submitted, "ended": s.Ended, "succeeded": s.Succeeded, "failed": s.Failed} {
		gauge(descJobs, float64(n), state)
	}
	for _, k := range []sched.TaskKind{sched.Map, sched.Reduce} {
		gauge(descRunning, float64(s.Running[k]), k.String())
		gauge(descSlots, float64(s.Slots[k]), k.String())
	}
	for outcome, n := range s.Attempts {
		ch <- prometheus.MustNewConstMetric(descAttempts, prometheus.CounterValue, float64(n), outcome)
	}
	for _, u := range s.Links {
		gauge(descLink, u.Utilisation, u.Name)
	}
	ch <- prometheus.MustNewConstMetric(descBytes, prometheus.CounterValue, float64(s.FlowBytes))
}
