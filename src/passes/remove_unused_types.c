/* remove_unused_types.c — remove-unused-types (closed world): the types
 * section rebuilt through the type rewriter with no edits, which keeps the
 * public rec groups and puts the private types still named anywhere in one
 * new rec group; unused private types and duplicate groups go. Modules
 * without GC, or in an open world, are left alone. */
#include "passes.h"

tl_status tl_pass_remove_unused_types(tl_pass_ctx *ctx) { return tl_type_pass_run(ctx, false, NULL); }
