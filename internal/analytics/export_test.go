package analytics

import "time"

// DrainForBenchmark folds queued samples into buckets every FoldEvery, as
// the aggregator does under load, without writing them, until stop is
// closed.
func (r *Recorder) DrainForBenchmark(stop chan struct{}) {
	open := map[bucketKey]*bucketAgg{}
	fold := time.NewTicker(r.cfg.FoldEvery)
	defer fold.Stop()
	for {
		select {
		case <-fold.C:
			r.foldQueued(open, false)
		case <-stop:
			return
		}
	}
}
