package jpegscale

// pipelineMinMCUs is the least number of MCUs a scan must have for its
// blocks to be reconstructed on a second goroutine (below, the hand-over
// costs more than it saves). A variable for the tests, which set it to 1
// so that every scan of the corpus and of the fuzzer is pipelined too.
var pipelineMinMCUs = 1024

// pipeline hands a scan's decoded blocks, a row of MCUs at a time, to a
// goroutine that reconstructs them into the image. Each block goes to its
// own pixels, and the scan waits for the goroutine before it returns, so
// the image is whole (or the decode has failed) when processSOS returns.
type pipeline struct {
	d        *decoder
	cur      []pendingBlock
	work     chan []pendingBlock
	free     chan []pendingBlock
	done     chan error
	finished bool
	err      error
	panicked any // a panic of the reconstruction, for finish
}

type pendingBlock struct {
	b      block
	bx, by int32
	comp   uint8
}

func (d *decoder) startPipeline() *pipeline {
	p := &pipeline{d: d, work: make(chan []pendingBlock, 2), free: make(chan []pendingBlock, 3), done: make(chan error, 1)}
	p.free <- nil
	p.free <- nil
	go p.run()
	return p
}

func (p *pipeline) run() {
	var err error
	defer func() {
		// A panic here would crash the program (the caller's recover is
		// on another goroutine): it is handed to finish, which panics
		// with it on the caller's goroutine, as a decode on one would.
		if r := recover(); r != nil {
			p.panicked = r
			for batch := range p.work {
				p.free <- batch[:0]
			}
		}
		p.done <- err
	}()
	for batch := range p.work {
		for i := range batch {
			if err != nil {
				break
			}
			pb := &batch[i]
			err = p.d.reconstructBlock(&pb.b, int(pb.bx), int(pb.by), int(pb.comp))
		}
		p.free <- batch[:0]
	}
}

func (p *pipeline) add(b *block, bx, by int, comp uint8) {
	p.cur = append(p.cur, pendingBlock{b: *b, bx: int32(bx), by: int32(by), comp: comp})
}

// flush hands the blocks decoded so far over, and takes an empty batch.
func (p *pipeline) flush() {
	if len(p.cur) == 0 {
		return
	}
	p.work <- p.cur
	p.cur = <-p.free
}

// finish hands the last blocks over and waits until all are in the image;
// it returns the reconstruction's error. It may be called again.
func (p *pipeline) finish() error {
	if p.finished {
		return p.err
	}
	p.finished = true
	p.flush()
	close(p.work)
	p.err = <-p.done
	if p.panicked != nil {
		panic(p.panicked)
	}
	return p.err
}
