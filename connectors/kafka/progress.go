package kafka

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// progressWindow is how many offsets of the progress partition one scan
// reads, newest first, looking for the sink's last record.
const progressWindow = 512

// scanTimeout bounds one scan of the progress topic.
const scanTimeout = 30 * time.Second

// lastCommitted returns the checkpoint id of the sink's last committed
// progress record (0 when there is none). It reads with read_committed
// isolation up to the last stable offset, so records of an open or
// aborted transaction never count.
func (s *sink) lastCommitted(ctx context.Context) (uint64, error) {
	adm := kadm.NewClient(s.cl)
	ends, err := adm.ListCommittedOffsets(ctx, s.progressTopic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return 0, fmt.Errorf("stable offsets of %s: %w", s.progressTopic, err)
	}
	starts, err := adm.ListStartOffsets(ctx, s.progressTopic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return 0, fmt.Errorf("start offsets of %s: %w", s.progressTopic, err)
	}
	end, _ := ends.Lookup(s.progressTopic, s.progressPart)
	start, _ := starts.Lookup(s.progressTopic, s.progressPart)
	for hi := end.Offset; hi > start.Offset; {
		lo := max(start.Offset, hi-progressWindow)
		id, found, err := s.scanProgress(ctx, lo, hi)
		if err != nil || found {
			return id, err
		}
		hi = lo
	}
	return 0, nil
}

// scanProgress reads offsets [lo, hi) of the progress partition and
// returns the sink's last id there. Control records are kept so the scan
// knows when it reached hi-1 (below the stable offset the last offset is
// always a visible record or a transaction marker).
func (s *sink) scanProgress(ctx context.Context, lo, hi int64) (uint64, bool, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(s.brokers...),
		kgo.ClientID("streamsql-progress"),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{s.progressTopic: {s.progressPart: kgo.NewOffset().At(lo)}}),
		kgo.FetchMaxWait(100*time.Millisecond),
	)
	if err != nil {
		return 0, false, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, scanTimeout)
	defer cancel()
	var (
		last  uint64
		found bool
	)
	for {
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil && fs.NumRecords() == 0 {
			return 0, false, fmt.Errorf("read %s partition %d: %w", s.progressTopic, s.progressPart, err)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= hi {
				done = true
				return
			}
			if !r.Attrs.IsControl() && string(r.Key) == s.name {
				if id, err := strconv.ParseUint(string(r.Value), 10, 64); err == nil {
					last, found = id, true
				}
			}
			if r.Offset >= hi-1 {
				done = true
			}
		})
		if done {
			return last, found, nil
		}
	}
}
