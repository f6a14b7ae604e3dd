/* ops.h - the tile IR's statements: X(ID, "printed name", is_tile_op).
 * Adding an op is a line here, a case in the builder and its lowering. */
#define IR_OPS(X)                  \
    X(COPY, "copy", 1)             \
    X(GEMM, "gemm", 1)             \
    X(FILL, "fill", 1)             \
    X(REDUCE, "reduce", 1)         \
    X(SCAN, "scan", 1)             \
    X(ATOMIC_ADD, "atomic_add", 1) \
    X(ATOMIC, "atomic", 0)         \
    X(FOR, "for", 0)               \
    X(PARALLEL, "parallel", 0)     \
    X(IF, "if", 0)                 \
    X(LET, "let", 0)               \
    X(VAR, "var", 0)               \
    X(STORE, "store", 0)           \
    X(SYNC, "sync_threads", 0)     \
    X(PRINT, "print", 0)
