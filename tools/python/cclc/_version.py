# The version of the package: that of the cclc and libcclrt it is released
# with (CCL_VERSION_STRING in runtime/include/ccl/ccl.h; test/python checks
# that they agree).
__version__ = "0.12.0"
