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

// TestKindIssuerIsTheOneTheValuesName checks that the ClusterIssuer make kind-up creates is a
// cert-manager self-signed issuer named as values-kind.yaml's ingress asks, so kind serves HTTPS.
func TestKindIssuerIsTheOneTheValuesName(t *testing.T) {
	raw, err := os.ReadFile("../../k8s/kind/selfsigned-issuer.yaml")
	require.NoError(t, err)
	var issuer struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			SelfSigned *struct{} `json:"selfSigned"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.UnmarshalStrict(raw, &issuer))
	require.Equal(t, "cert-manager.io/v1", issuer.APIVersion)
	require.Equal(t, "ClusterIssuer", issuer.Kind)
	require.NotNil(t, issuer.Spec.SelfSigned)

	raw, err = os.ReadFile("../../charts/bizassist/values-kind.yaml")
	require.NoError(t, err)
	var values struct {
		Ingress struct {
			Host string `json:"host"`
			TLS  struct {
				Enabled       bool   `json:"enabled"`
				ClusterIssuer string `json:"clusterIssuer"`
			} `json:"tls"`
		} `json:"ingress"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &values))
	require.True(t, values.Ingress.TLS.Enabled)
	require.Equal(t, issuer.Metadata.Name, values.Ingress.TLS.ClusterIssuer)
	require.NotEmpty(t, values.Ingress.Host, "cert-manager issues for the host")
}
