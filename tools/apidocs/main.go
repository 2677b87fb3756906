// Command apidocs merges every service's api/openapi.yaml into libs/apidocs/openapi.json and
// renders the API reference page libs/apidocs/index.html from it; identity serves both (libs/apidocs).
//
//	go run ./tools/apidocs            # from the repository root, after changing a service's contract
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// Version is the merged document's info.version; bump it with a contract change.
const Version = "1.0.0"

func main() {
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	if err := write(*root); err != nil {
		fmt.Fprintln(os.Stderr, "apidocs:", err)
		os.Exit(1)
	}
}

// Generate returns the files of libs/apidocs: the merged document and the page.
func Generate(root string) (map[string][]byte, error) {
	specs, err := LoadSpecs(root)
	if err != nil {
		return nil, err
	}
	doc, err := Merge(specs, Version)
	if err != nil {
		return nil, err
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	page, err := RenderHTML(doc)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"openapi.json": js.Bytes(), "index.html": page}, nil
}

func write(root string) error {
	files, err := Generate(root)
	if err != nil {
		return err
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, "libs", "apidocs", name), body, 0o644); err != nil {
			return err
		}
	}
	return nil
}
