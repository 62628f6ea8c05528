# cmake -DFILE=<path> -P WriteChecksum.cmake
# Writes <path>.sum: the file's SHA-256, in hex, and nothing else (no path,
# so that every clone writes the same bytes for the same file).
file(SHA256 "${FILE}" _edgeadmm_sum)
file(WRITE "${FILE}.sum" "${_edgeadmm_sum}\n")
