package analytics

// DrainForBenchmark folds queued samples into buckets as the aggregator
// does, without writing them, until stop is closed.
func (r *Recorder) DrainForBenchmark(stop chan struct{}) {
	open := map[bucketKey]*bucketAgg{}
	for {
		select {
		case s := <-r.in:
			r.fold(open, s)
			r.foldQueued(open)
		case <-stop:
			return
		}
	}
}
