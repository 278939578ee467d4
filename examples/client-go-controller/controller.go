package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Controller reconciles Deployments: its event handlers put their keys on
// a rate-limited workqueue, and workers reconcile them from the lister.
type Controller struct {
	deploymentsLister appslisters.DeploymentLister
	deploymentsSynced cache.InformerSynced
	workqueue         workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// NewController returns a controller of the Deployments deploymentInformer
// gives, its workqueue reporting to metrics.
func NewController(ctx context.Context, deploymentInformer appsinformers.DeploymentInformer, metrics workqueue.MetricsProvider) *Controller {
	logger := klog.FromContext(ctx)
	c := &Controller{
		deploymentsLister: deploymentInformer.Lister(),
		deploymentsSynced: deploymentInformer.Informer().HasSynced,
		workqueue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "deployments", MetricsProvider: metrics},
		),
	}
	logger.Info("Setting up event handlers")
	if _, err := deploymentInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueDeployment,
		UpdateFunc: func(_, new any) { c.enqueueDeployment(new) },
		DeleteFunc: c.enqueueDeployment,
	}); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Error adding the event handler")
	}
	return c
}

// Run waits for the cache to sync, then runs workers until ctx is done,
// and waits for them to finish their item.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	defer c.workqueue.ShutDown()
	logger := klog.FromContext(ctx)

	logger.Info("Waiting for informer caches to sync")
	if ok := cache.WaitForCacheSync(ctx.Done(), c.deploymentsSynced); !ok {
		return fmt.Errorf("failed to wait for caches to sync")
	}
	logger.Info("Starting workers", "count", workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.runWorker, time.Second) })
	}
	<-ctx.Done()
	logger.Info("Shutting down workers")
	c.workqueue.ShutDown() // workers finish their item, then return
	wg.Wait()
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	objRef, shutdown := c.workqueue.Get()
	if shutdown {
		return false
	}
	defer c.workqueue.Done(objRef)
	if err := c.syncHandler(ctx, objRef); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Error syncing; requeuing for later retry", "objectReference", objRef)
		c.workqueue.AddRateLimited(objRef)
		return true
	}
	c.workqueue.Forget(objRef)
	return true
}

// syncHandler is where a real controller compares the Deployment's desired
// state with the world's and acts; this one reads it from the lister and
// logs it.
func (c *Controller) syncHandler(ctx context.Context, objRef cache.ObjectName) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "objectRef", objRef)
	deployment, err := c.deploymentsLister.Deployments(objRef.Namespace).Get(objRef.Name)
	if apierrors.IsNotFound(err) {
		logger.Info("Deployment deleted")
		return nil
	}
	if err != nil {
		return err
	}
	logger.Info("Reconciled", "generation", deployment.Generation)
	return nil
}

// enqueueDeployment puts the key of a Deployment, or of a tombstone's, on
// the workqueue.
func (c *Controller) enqueueDeployment(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		utilruntime.HandleError(fmt.Errorf("expected a Deployment, got %T", obj))
		return
	}
	objRef, err := cache.ObjectToName(d)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.workqueue.Add(objRef)
}
