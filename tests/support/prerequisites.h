// What the tests need that this project builds or installs. Its absence fails the test that needs
// it, with the reason, and never skips it: a skipped test would hide the regression.
#pragma once

namespace cublasspy::test_support {

// The CPU stand-in's libcublas exists where the build put it (its path comes from the build, so
// a change of soname cannot quietly turn every stand-in test into a skip).
bool standin_built();

}  // namespace cublasspy::test_support
