package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNeedsCountsInWords(t *testing.T) {
	one := Needs{Nodes: 1, Jobs: 1, Maps: 1, Reduces: 1, Replicas: 1, Fetches: 1, Memory: 1 << 20}
	assert.Equal(t, "1 node, 1 job, 1 map and 1 reduce, 1 block replica, 1 shuffle fetch, at least 1.0 MiB of memory", one.String())
	two := Needs{Nodes: 2, Jobs: 3, Maps: 0, Reduces: 4, Replicas: 5, Fetches: 6, Memory: 1 << 20}
	assert.Equal(t, "2 nodes, 3 jobs, 0 maps and 4 reduces, 5 block replicas, 6 shuffle fetches, at least 1.0 MiB of memory", two.String())
}
