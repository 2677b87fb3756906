# Kubernetes targets: images, chart checks against a real kube-apiserver, kind. Included from the
# Makefile (`include mk/kube.mk`); see charts/README.md.

KUBE_CACHE := $(HOME)/.cache/bizassist
KUBE_STATE := $(KUBE_CACHE)/kube-test
IMAGES_DIR := $(KUBE_CACHE)/images
IMAGE_TAG ?= dev
KUBE_SERVICES := identity leads assistant analytics integrations console
# The Prometheus operator release whose CRDs (ServiceMonitor, PrometheusRule) the chart tests
# install into the test API server; fetched once through the Go module proxy.
PROM_OPERATOR := github.com/prometheus-operator/prometheus-operator@v0.79.2
KIND_CLUSTER ?= bizassist
# The Kubernetes tools, built once (build.sh takes a lock while it builds).
KUBE_BUILD := tools/kube/build.sh
INGRESS_NGINX_MANIFEST := https://raw.githubusercontent.com/kubernetes/ingress-nginx/controller-v1.12.1/deploy/static/provider/kind/deploy.yaml
CERT_MANAGER_MANIFEST := https://github.com/cert-manager/cert-manager/releases/download/v1.16.2/cert-manager.yaml

##@ Kubernetes

.PHONY: images
images: ## Build every service image as an OCI layout + kind archive in ~/.cache/bizassist/images (no container engine)
	@mkdir -p $(IMAGES_DIR)/bin
	@for s in $(KUBE_SERVICES); do echo "==> go build $$s (static)"; \
	  CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o $(IMAGES_DIR)/bin/$$s ./services/$$s/cmd/$$s; done
	@cd tools/images && GOWORK=off go run . -bin $(IMAGES_DIR)/bin -out $(IMAGES_DIR) -tag $(IMAGE_TAG) $(KUBE_SERVICES)

.PHONY: docker-images
docker-images: ## Build every service image with docker from the root Dockerfile (needs a container engine; the kind workflow runs it)
	@for s in $(KUBE_SERVICES); do echo "==> docker build --build-arg SERVICE=$$s -t bizassist/$$s:$(IMAGE_TAG) ."; \
	  docker build --build-arg SERVICE=$$s -t bizassist/$$s:$(IMAGE_TAG) . || exit 1; done

.PHONY: images-test
images-test: images ## Check each image (entrypoint, non-root user, static binary, size bound) and that the Dockerfile agrees
	@cd tools/images && GOWORK=off go vet ./... && IMAGES_DIR=$(IMAGES_DIR) GOWORK=off go test -count=1 ./...

.PHONY: k8s-tools
k8s-tools: ## Build helm, kube-apiserver and promtool (pinned in tools/kube/go.mod) into the cache, install etcd
	@$(KUBE_BUILD) >/dev/null

.PHONY: test-charts
test-charts: ## helm lint, golden renders, schema refusals, promtool, and install into a real kube-apiserver + etcd
	@export KUBE_BIN=$$($(KUBE_BUILD)) KUBECONFIG=$(KUBE_STATE)/kubeconfig; \
	export PROM_OPERATOR_CRDS=$$(cd / && GOWORK=off GOFLAGS= go mod download -json $(PROM_OPERATOR) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p')/example/prometheus-operator-crd; \
	tools/kube/apiserver.sh start $(KUBE_STATE) $$KUBE_BIN; \
	trap '$(CURDIR)/tools/kube/apiserver.sh stop $(KUBE_STATE)' EXIT; \
	cd tools/kube && GOWORK=off go vet ./... && GOWORK=off go test -count=1 ./...

.PHONY: test-k8s
test-k8s: test-charts images-test test-kube-node ## Every Kubernetes check that runs without a container engine: the charts against a real API server, the images, and the single-node cluster

.PHONY: test-kube-node
test-kube-node: images kube-node-tools ## The single-node cluster: install, pods Ready, e2e through its edge, rolling upgrade, pod deletes and a drain under load, teardown (root). Stops the local stack first and takes the stack lock: do not wrap it in flock
	@# The node's pods need the machine's PostgreSQL connections: a local stack left running by an
	@# earlier stage (the scale shape: 12 processes and a replica) leaves them too few.
	@$(MAKE) --no-print-directory down
	@flock -o /tmp/bizassist-stack.lock tools/kube/node-test.sh $(KUBE_NODE_STATE) $$($(KUBE_BUILD) helm node) $(IMAGES_DIR) $(IMAGE_TAG) $(IMAGES_DIR)/restamped

.PHONY: k8s-golden
k8s-golden: ## Rewrite tools/kube/testdata/golden from the charts (review the diff!)
	@export KUBE_BIN=$$($(KUBE_BUILD) helm); cd tools/kube && GOWORK=off go test -count=1 -run 'TestGoldenRenders' . -update

.PHONY: kind-up
kind-up: images ## Create a kind cluster, load the images, install ingress-nginx, cert-manager and the chart (HTTPS, self-signed); prints the URL
	@bin=$$($(KUBE_BUILD) helm kind); ctx=kind-$(KIND_CLUSTER); \
	$$bin/kind get clusters | grep -qx $(KIND_CLUSTER) || $$bin/kind create cluster --name $(KIND_CLUSTER) --config k8s/kind/cluster.yaml; \
	for s in $(KUBE_SERVICES); do $$bin/kind load image-archive --name $(KIND_CLUSTER) $(IMAGES_DIR)/$$s.tar; done; \
	kubectl --context $$ctx apply -f $(INGRESS_NGINX_MANIFEST); \
	kubectl --context $$ctx -n ingress-nginx patch configmap ingress-nginx-controller --type merge --patch-file k8s/kind/ingress-nginx-gzip.yaml; \
	kubectl --context $$ctx -n ingress-nginx rollout status deployment/ingress-nginx-controller --timeout=180s; \
	kubectl --context $$ctx apply -f $(CERT_MANAGER_MANIFEST); \
	kubectl --context $$ctx -n cert-manager rollout status deployment/cert-manager-webhook --timeout=180s; \
	kubectl --context $$ctx apply -f k8s/kind/selfsigned-issuer.yaml; \
	for c in $(KUBE_SERVICES) bizassist; do $$bin/helm dependency build --skip-refresh charts/$$c >/dev/null; done; \
	$$bin/helm upgrade --install bizassist charts/bizassist --kube-context $$ctx --namespace bizassist --create-namespace \
	  --values charts/bizassist/values-kind.yaml --wait --timeout 10m; \
	echo "bizassist is up: https://localhost/api/auth (self-signed: curl -k; http:// redirects)  (kubectl --context $$ctx -n bizassist get pods)"

.PHONY: kube-node-tools
kube-node-tools: ## Build the node's components (kubelet, controller-manager, scheduler, kube-proxy, kubectl, CoreDNS) into the cache; install containerd, runc, iptables, CNI plugins
	@$(KUBE_BUILD) helm node >/dev/null

KUBE_NODE_STATE := $(KUBE_CACHE)/kube-node

.PHONY: kube-up
kube-up: images ## A single-node Kubernetes on this machine (no container engine) with the chart installed; prints the URL
	@start=$$(date +%s); bin=$$($(KUBE_BUILD) helm node); \
	tools/kube/kube-up.sh up $(KUBE_NODE_STATE) $$bin $(IMAGES_DIR) $(IMAGE_TAG) || { tools/kube/kube-up.sh down $(KUBE_NODE_STATE) $$bin; exit 1; }; \
	echo "bizassist is up on a single-node cluster in $$(($$(date +%s) - start))s: https://127.0.0.1:9443/ (CA: $(KUBE_NODE_STATE)/tls.crt; demo accounts and secrets in $(KUBE_NODE_STATE)/env)"; \
	echo "  curl --cacert $(KUBE_NODE_STATE)/tls.crt https://127.0.0.1:9443/api/auth/jwks.json"; \
	echo "  KUBECONFIG=$(KUBE_NODE_STATE)/node/kubeconfig $$bin/kubectl -n bizassist get pods"

.PHONY: kube-down
kube-down: ## Remove the single-node cluster and everything it made (processes, bridge, netns, mounts, iptables chains, its database)
	@tools/kube/kube-up.sh down $(KUBE_NODE_STATE) $$($(KUBE_BUILD) helm node)

.PHONY: kind-down
kind-down: ## Delete the kind cluster
	@$$($(KUBE_BUILD) kind)/kind delete cluster --name $(KIND_CLUSTER)

# The chart repository: every chart packaged with its dependencies inside, and the index.yaml
# that helm reads. Upload the directory as is (any static web server, GitHub Pages, an S3 bucket)
# and install with one command: helm install bizassist bizassist --repo $(CHARTS_REPO_URL).
CHARTS_DIST := dist/charts
CHARTS_REPO_URL ?= https://charts.bizassist.example

.PHONY: charts-package
charts-package: ## Package every chart into dist/charts with its index.yaml: a Helm chart repository (CHARTS_REPO_URL=<where it is served>)
	@helm=$$($(KUBE_BUILD) helm)/helm; rm -rf $(CHARTS_DIST); mkdir -p $(CHARTS_DIST); \
	for c in bizassist-lib $(KUBE_SERVICES) bizassist; do \
	  if [ $$c != bizassist-lib ]; then $$helm dependency build --skip-refresh charts/$$c >/dev/null; fi; \
	  $$helm package charts/$$c --destination $(CHARTS_DIST) >/dev/null || exit 1; done; \
	$$helm repo index $(CHARTS_DIST) --url $(CHARTS_REPO_URL); \
	echo "==> $(CHARTS_DIST): $$(cd $(CHARTS_DIST) && ls | tr '\n' ' ')(serve it at $(CHARTS_REPO_URL))"
