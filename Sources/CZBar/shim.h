// ZBar (Debian libzbar-dev): decodes EAN-13 / UPC-A barcodes from greyscale pixels.
#include <zbar.h>
