#include <stdio.h>
int main(void) { puts("ccsift: under construction"); return 0; }
