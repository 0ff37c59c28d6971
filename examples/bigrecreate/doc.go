// Package bigrecreate is issue 52's third target (draft).
package bigrecreate
