#ifndef C_VECTOR_DOT_H
#define C_VECTOR_DOT_H

#include <stddef.h>
#include <stdint.h>

/// The dot product of two vectors of 8-bit codes (each in -127...127), summed in 32 bits.
/// On x86-64 it uses AVX2 when the processor has it (chosen once, at the first call).
int32_t selene_dot_i8(const int8_t *a, const int8_t *b, size_t count);

#endif
