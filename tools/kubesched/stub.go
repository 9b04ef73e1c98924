package main

import (
	_ "k8s.io/client-go/kubernetes/fake"
	_ "k8s.io/client-go/informers"
	_ "k8s.io/client-go/tools/events"
	_ "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	_ "k8s.io/kube-scheduler/framework"
	_ "k8s.io/kubernetes/pkg/apis/core/v1"
	_ "k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	_ "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	_ "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	_ "k8s.io/kubernetes/pkg/scheduler/metrics"
	_ "k8s.io/kubernetes/pkg/scheduler/util/assumecache"
	_ "k8s.io/klog/v2"
)

func main() {}
