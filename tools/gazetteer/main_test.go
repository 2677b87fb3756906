package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const sample = `exports.codes = {"78701":{"zip":"78701","latitude":30.2713,"longitude":-97.7426,"city":"Austin","state":"TX","country":"US"},
"09001":{"zip":"09001","latitude":1,"longitude":2,"city":"Apo","state":"AE","country":"US"},
"00601":{"zip":"00601","latitude":18.1,"longitude":-66.9,"city":"Adjuntas","state":"PR","country":"US"},
"20599":{"zip":"20599","latitude":38.9,"longitude":-77.0,"city":"115 Crm Firms","state":"DC","country":"US"},
"63101":{"zip":"63101","latitude":38.6312,"longitude":-90.1922,"city":"Saint  Louis","state":"MO","country":"US"}};
exports.stash = {};`

func TestConvertKeepsStatesAndPlaceNames(t *testing.T) {
	rows, err := Parse([]byte(sample))
	require.NoError(t, err)
	require.Len(t, rows, 5)
	var b bytes.Buffer
	require.NoError(t, Write(&b, Keep(rows)))
	require.Equal(t, "63101\tMO\tSaint Louis\t38.6312\t-90.1922\n78701\tTX\tAustin\t30.2713\t-97.7426\n", b.String())
}

func TestRunWritesTheFile(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "codes.js"), filepath.Join(dir, "us-zips.tsv")
	require.NoError(t, os.WriteFile(in, []byte(sample), 0o644))
	var log bytes.Buffer
	require.NoError(t, run([]string{"-in", in, "-out", out}, &log))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(got), "78701\tTX\tAustin")
	require.Contains(t, log.String(), "2 of 5 ZIP codes kept")
	require.Error(t, run([]string{"-in", in}, &log))
	_, err = Parse([]byte("module.exports = 1"))
	require.Error(t, err)
}
