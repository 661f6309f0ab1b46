package scenarios

import "github.com/asynkron/protoactor-go/scheduler"

var _ = scheduler.NewTimerScheduler
