package platform

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Wired checks a service's Application (a struct whose fields are its use cases) before it serves:
// a use case is a struct literal, so a dependency left out compiles and would panic on the first
// request that needs it. It returns an error naming every nil dependency (an interface, function,
// pointer, map or channel, or an interface holding a nil pointer), looking into the use cases and
// into the structs of the same package they hold. A field that may be nil says so with the tag
// `wire:"optional"`.
func Wired(application any) error {
	v := reflect.ValueOf(application)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return fmt.Errorf("platform.Wired takes the Application struct, not %T", application)
	}
	w := wiring{pkg: v.Type().PkgPath(), seen: map[uintptr]bool{}}
	w.check(v, "")
	if len(w.missing) > 0 {
		return errors.New("the use cases are wired without " + strings.Join(w.missing, ", "))
	}
	return nil
}

type wiring struct {
	pkg     string
	seen    map[uintptr]bool // the pointers already looked into: use cases share some
	missing []string
}

func (w *wiring) check(v reflect.Value, path string) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("wire") == "optional" {
			continue
		}
		fv, name := v.Field(i), strings.TrimPrefix(path+"."+f.Name, ".")
		switch fv.Kind() {
		case reflect.Interface:
			if fv.IsNil() || fv.Elem().Kind() == reflect.Pointer && fv.Elem().IsNil() {
				w.missing = append(w.missing, name)
			}
		case reflect.Func, reflect.Map, reflect.Chan:
			if fv.IsNil() {
				w.missing = append(w.missing, name)
			}
		case reflect.Pointer:
			switch {
			case fv.IsNil():
				w.missing = append(w.missing, name)
			case w.ours(fv.Type().Elem()) && !w.seen[fv.Pointer()]:
				w.seen[fv.Pointer()] = true
				w.check(fv.Elem(), name)
			}
		case reflect.Struct:
			if w.ours(fv.Type()) {
				w.check(fv, name)
			}
		default:
		}
	}
}

// ours says whether t is a struct of the Application's package: a use case or a part of one. The
// structs of other packages (a time.Time, a retry policy) may hold nil pointers of their own.
func (w *wiring) ours(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == w.pkg
}
