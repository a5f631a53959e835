/* capture_marker.h - the string every capture-linked program holds
 * (capture_copy.c) and smpi_llamp-run looks for (tools/run/run_prep.c).
 * The part after the colon names the interface between a program's copy
 * and the shared runtime: raise it whenever that changes (a helper renamed
 * or removed), so that a program built by an older smpi_llamp-cc is refused
 * with "rebuild it", not by SMPI's "symbol lookup error" at load. */
#ifndef LLAMP_CAPTURE_MARKER_H
#define LLAMP_CAPTURE_MARKER_H
#define LLAMP_CAPTURE_MARKER_BASE "smpi_llamp-capture-linked"
#define LLAMP_CAPTURE_MARKER LLAMP_CAPTURE_MARKER_BASE ":2"
#endif
