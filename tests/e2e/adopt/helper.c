/* host code only, compiled by gcc */
const char *helper_name(void) { return "adopt"; }
