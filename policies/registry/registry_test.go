package registry

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type params interface{ Validate() error }

type widthParams struct{ Width int }

func (p *widthParams) Validate() error {
	if p.Width < 1 {
		return fmt.Errorf("width = %d: must be ≥ 1", p.Width)
	}
	return nil
}

type otherParams struct{}

func (*otherParams) Validate() error { return nil }

func newTestRegistry() *Registry[params, int, string] {
	r := New[params, int, string]("test", func(name string, known []string) error {
		return fmt.Errorf("name = %q: must be one of %s", name, strings.Join(known, ", "))
	})
	Add(r, "wide", func() *widthParams { return &widthParams{Width: 3} }, func(p *widthParams, arg int) (string, error) {
		return fmt.Sprintf("wide %d×%d", p.Width, arg), nil
	})
	Add(r, "other", func() *otherParams { return &otherParams{} }, func(*otherParams, int) (string, error) {
		return "", errors.New("other refuses")
	})
	return r
}

func TestRegistryBuildsFromDefaultsOrGivenParams(t *testing.T) {
	r := newTestRegistry()
	assert.Equal(t, []string{"other", "wide"}, r.Names())

	got, err := r.Build("wide", nil, 2)
	require.NoError(t, err)
	assert.Equal(t, "wide 3×2", got, "nil parameters are the defaults")

	got, err = r.Build("wide", &widthParams{Width: 5}, 2)
	require.NoError(t, err)
	assert.Equal(t, "wide 5×2", got)

	d, err := r.Defaults("wide")
	require.NoError(t, err)
	d.(*widthParams).Width = 9
	again, _ := r.Defaults("wide")
	assert.Equal(t, 3, again.(*widthParams).Width, "every call returns a new value")

	_, err = r.Build("other", nil, 0)
	assert.EqualError(t, err, "other refuses", "the build's own error comes back")
}

func TestRegistryRefusesUnknownNamesWrongTypesAndInvalidParams(t *testing.T) {
	r := newTestRegistry()
	_, err := r.Build("narrow", nil, 1)
	assert.EqualError(t, err, `name = "narrow": must be one of other, wide`)
	_, err = r.Defaults("narrow")
	assert.EqualError(t, err, `name = "narrow": must be one of other, wide`)

	_, err = r.Build("wide", &otherParams{}, 1)
	assert.EqualError(t, err, `test "wide" takes parameters of type *registry.widthParams, not *registry.otherParams`)

	_, err = r.Build("wide", &widthParams{Width: 0}, 1)
	assert.EqualError(t, err, "width = 0: must be ≥ 1", "parameters are validated before the build")
}

func TestRegistryPanicsOnATakenName(t *testing.T) {
	r := newTestRegistry()
	assert.PanicsWithValue(t, `test policy "wide" registered twice`, func() {
		Add(r, "wide", func() *otherParams { return &otherParams{} }, func(*otherParams, int) (string, error) { return "", nil })
	})
}
