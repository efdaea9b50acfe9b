package ui

import (
	"sync"
	"testing"
)

// The window's watchers start background work at any time. Settle (and the
// start-up's Options.Settled) must return once none runs, where a
// sync.WaitGroup panics when work starts while a waiter wakes.
func TestJobsWaitReturnsWhileWorkKeepsStarting(t *testing.T) {
	var j jobs
	stop := make(chan struct{})
	var starters sync.WaitGroup
	for range 4 {
		starters.Add(1)
		go func() {
			defer starters.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				j.add()
				j.done()
			}
		}()
	}
	for range 1000 {
		j.wait()
	}
	close(stop)
	starters.Wait()
}

func TestJobsWaitWaitsForWorkUnderWay(t *testing.T) {
	var j jobs
	j.add()
	var finished sync.Mutex
	ended := false
	returned := make(chan struct{})
	go func() {
		j.wait()
		finished.Lock()
		if !ended {
			t.Error("wait returned while work was under way")
		}
		finished.Unlock()
		close(returned)
	}()
	finished.Lock()
	ended = true
	finished.Unlock()
	j.done()
	<-returned
}
