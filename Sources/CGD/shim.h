// libgd (Debian libgd-dev): reads JPEG, PNG, WebP and HEIC photos into pixels.
#include <gd.h>
