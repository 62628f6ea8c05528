// Placeholder for a test that does not exist on this target (see
// edgeadmm_add_mcu_test in cmake/CrossBareMetal.cmake): the target and its
// ctest entry exist so the area's CMakeLists.txt can still set properties,
// but it is never built and ctest reports it as disabled.
int main() { return 0; }
