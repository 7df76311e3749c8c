// Matrix Market files (coordinate format) read into CSR matrices.
#pragma once

#include <cstdint>
#include <string>

#include "model/csr.hpp"

namespace gpb {

// Reads a Matrix Market file: coordinate format, real/integer/pattern field,
// general/symmetric/skew-symmetric symmetry (the lower triangle mirrored, its sign changed if skew).
// Pattern entries get value 1. Duplicates are summed.
// Throws UsageError naming the file and the problem on anything malformed. The file may be
// a pipe (`--matrix <(zcat m.mtx.gz)`); LF, CRLF and CR line ends and a UTF-8 byte order
// mark are accepted. The text is parsed as it is read (memory holds one line of at most
// 1 MiB, not the text), and the sizes its header declares must fit the available memory
// (docs/bounds.md).
CsrMatrix read_matrix_market(const std::string& path);

// The same from text already in memory; path names it in errors. The declared sizes are
// refused (UsageError) where reading them would need more than memory_budget bytes.
CsrMatrix parse_matrix_market(std::string text, const std::string& path, std::uint64_t memory_budget);

}  // namespace gpb
