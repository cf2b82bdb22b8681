/* Preloaded by the `run` tests to show LD_PRELOAD keeps its earlier entries; does nothing. */
int cublasspy_tools_test_empty_preload_marker = 0;
