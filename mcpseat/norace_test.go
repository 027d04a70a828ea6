//go:build !race

package mcpseat_test

const raceBuild = false
