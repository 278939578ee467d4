package cluster

import (
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// optionsScheme converts request options to the internal form the API
// server validates.
var optionsScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(metainternalversion.AddToScheme(s))
	return s
}()

// validateOptions checks list or watch options as the API server does
// before serving: undecodable options (bad selectors) are 400, invalid
// combinations 422. watchList says whether the server has the WatchList
// feature, without which sendInitialEvents is forbidden.
func validateOptions(opts metav1.ListOptions, watchList bool) error {
	var internal metainternalversion.ListOptions
	if err := optionsScheme.Convert(&opts, &internal, nil); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if errs := validation.ValidateListOptions(&internal, watchList); len(errs) > 0 {
		return errInvalidOptions(errs)
	}
	return nil
}

// parseRV parses a resourceVersion; "" and "0" are 0.
func parseRV(s string) (uint64, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 {
		return 0, apierrors.NewBadRequest("invalid resource version: " + strconv.Quote(s))
	}
	return v, nil
}

func isExpired(err error) bool { return apierrors.IsResourceExpired(err) }
