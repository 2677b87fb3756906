package kube

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/yaml"
)

// TestKindClusterConfig reads k8s/kind/cluster.yaml with kind's own types, refusing unknown
// fields, and checks what make kind-up relies on: a node the ingress-nginx kind manifest will
// schedule its controller on, publishing ports 80 and 443.
func TestKindClusterConfig(t *testing.T) {
	raw, err := os.ReadFile("../../k8s/kind/cluster.yaml")
	require.NoError(t, err)
	var cluster v1alpha4.Cluster
	require.NoError(t, yaml.UnmarshalStrict(raw, &cluster))
	require.Equal(t, "Cluster", cluster.Kind)
	require.Equal(t, "kind.x-k8s.io/v1alpha4", cluster.APIVersion)
	require.Len(t, cluster.Nodes, 1)
	node := cluster.Nodes[0]
	require.Equal(t, "true", node.Labels["ingress-ready"])
	ports := map[int32]int32{}
	for _, m := range node.ExtraPortMappings {
		ports[m.ContainerPort] = m.HostPort
	}
	require.Equal(t, map[int32]int32{80: 80, 443: 443}, ports)
}
