package platform_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform"
)

type store interface{ Get() string }

type memStore struct{}

func (*memStore) Get() string { return "" }

type recompute struct {
	Store store
	Now   func() time.Time
}

type findLeads struct {
	Store     store
	Recompute recompute
	Since     time.Time // another package's struct, with a nil *Location of its own
	Limit     int
	Tracer    *memStore `wire:"optional"`
}

type reportUsage struct {
	Store     store
	Recompute *recompute
	seen      map[string]bool
}

type application struct {
	FindLeads   findLeads
	ReportUsage *reportUsage
}

func wiredApplication() application {
	rc := recompute{Store: &memStore{}, Now: time.Now}
	return application{
		FindLeads:   findLeads{Store: &memStore{}, Recompute: rc},
		ReportUsage: &reportUsage{Store: &memStore{}, Recompute: &rc, seen: map[string]bool{}},
	}
}

func TestWiredAcceptsAnApplicationWithEveryDependency(t *testing.T) {
	t.Parallel()
	a := wiredApplication()
	require.NoError(t, platform.Wired(a))
	require.NoError(t, platform.Wired(&a))
}

// Each dependency left out is named by its path from the Application, however deep and whatever
// its kind: an interface, a typed nil in an interface, a function, a pointer, a map.
func TestWiredNamesEveryNilDependency(t *testing.T) {
	t.Parallel()
	a := wiredApplication()
	var typedNil *memStore
	a.FindLeads.Store = typedNil
	a.FindLeads.Recompute.Now = nil
	a.ReportUsage.Recompute.Store = nil
	a.ReportUsage.seen = nil
	err := platform.Wired(a)
	require.EqualError(t, err, "the use cases are wired without FindLeads.Store, FindLeads.Recompute.Now, "+
		"ReportUsage.Recompute.Store, ReportUsage.seen")

	a.ReportUsage = nil
	require.ErrorContains(t, platform.Wired(a), ", ReportUsage")
}

func TestWiredRefusesWhatIsNotAnApplication(t *testing.T) {
	t.Parallel()
	require.EqualError(t, platform.Wired(nil), "platform.Wired takes the Application struct, not <nil>")
	var a *application
	require.EqualError(t, platform.Wired(a), "platform.Wired takes the Application struct, not *platform_test.application")
}
