package sched

import (
	r2 "math/rand/v2"
	clk "time"
)

func wait(d clk.Duration) { clk.Sleep(d) }

func draw(seed uint64) int { return r2.New(r2.NewPCG(seed, 1)).IntN(10) + r2.IntN(3) }
