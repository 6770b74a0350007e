package main

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestKafkaToPostgresMetrics scrapes /metrics of a `streamsql run --http`
// reading Kafka (kfake over TCP) into Postgres: the consumer lag of every
// partition falls to 0 once the topic is read, bytes are counted per
// partition, and the checkpoint id and the sinks' last committed
// checkpoint keep advancing.
func TestKafkaToPostgresMetrics(t *testing.T) {
	const n = 4000
	in, produced := newBidsTopic(t, n, 0.01, 0)
	if err := <-produced; err != nil {
		t.Fatalf("produce: %v", err)
	}
	dsn := sharedPostgres(t).DSNFor(sharedPostgres(t).NewDB(t))
	p := newPipelineRun(t, fmt.Sprintf(kafkaToPostgres, in.brokers, dsn, "exactly_once"))
	c, url := p.startHTTP("100ms")
	defer p.stop(c)
	caughtUp := func(body string) bool {
		for part := 0; part < 4; part++ {
			lag := regexp.MustCompile(fmt.Sprintf(`(?m)^streamsql_source_consumer_lag_records\{partition="%d",pipeline="volume",source="bids"\} (\d+)$`, part))
			bytes := regexp.MustCompile(fmt.Sprintf(`(?m)^streamsql_source_bytes_read_total\{partition="%d",pipeline="volume",source="bids"\} [1-9]`, part))
			if m := lag.FindStringSubmatch(body); m == nil || m[1] != "0" || !bytes.MatchString(body) {
				return false
			}
		}
		return true
	}
	body := pollMetrics(t, p, url, caughtUp)
	first := gaugeValue(body, `streamsql_checkpoint_id`)
	advanced := func(body string) bool {
		return gaugeValue(body, `streamsql_checkpoint_id`) > first &&
			gaugeValue(body, `streamsql_sink_last_committed_checkpoint{connector="postgres",sink="volume_pg"}`) > first
	}
	pollMetrics(t, p, url, advanced)
}

// pollMetrics scrapes url until ok accepts the body (a minute at most).
func pollMetrics(t *testing.T, p *pipelineRun, url string, ok func(string) bool) string {
	t.Helper()
	var body string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if body = get(t, url); ok(body) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never showed what the test waits for; last scrape:\n%s\nlog:\n%s", body, p.logText())
		}
	}
}

// gaugeValue is the value of the series named exactly series, -1 when
// absent.
func gaugeValue(body, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return v
}
