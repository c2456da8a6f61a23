/* Error codes shared by every offlink library, and their messages.
 *
 * Libraries return one of these and fill a struct ol_diag with the context
 * (file, member, offset, field); only a tool's main() turns that into text
 * and an exit status.  The message for each code lives in one table
 * (error.c), as libelf's elf_errmsg() does. */
#ifndef OFFLINK_COMMON_ERROR_H
#define OFFLINK_COMMON_ERROR_H

enum ol_err {
	OL_OK = 0,
	OL_E_NOMEM,          /* an allocation failed */
	OL_E_IO,             /* a system call failed; detail holds strerror */
	OL_E_USAGE,          /* bad command line */
	OL_E_TRUNCATED,      /* input ends inside a field */
	OL_E_BAD_MAGIC,      /* magic bytes do not match */
	OL_E_BAD_VERSION,    /* version number we do not know */
	OL_E_OUT_OF_BOUNDS,  /* offset or size points outside the container */
	OL_E_OVERFLOW,       /* offset + size does not fit in 64 bits */
	OL_E_UNTERMINATED,   /* string without its NUL inside the table */
	OL_E_BAD_FIELD,      /* a field holds an impossible value */
	OL_E_NO_ENTRIES,     /* container declares zero entries */
	OL_E_TRAILING,       /* bytes after the last complete binary */
	OL_E_DECOMPRESS,     /* compressed payload does not decompress */
	OL_E_COMPRESS,       /* compressor failed */
	OL_E_BAD_ELF,        /* malformed ELF file */
	OL_E_BAD_ARCHIVE,    /* malformed static archive */
	OL_E_BAD_BITCODE,    /* malformed LLVM bitcode */
	OL_E_UNRECOGNIZED,   /* not a format this tool reads */
	OL_E_BAD_BUNDLE,     /* malformed clang-offload-bundler bundle */
	OL_E_BAD_FATBIN,     /* malformed CUDA fat binary */
	OL_E_BAD_TARGET,     /* malformed target triple, target ID or bundle ID */
	OL_E_NOT_FOUND,      /* a file, library, tool or bundle was not found */
	OL_E_CONFLICT,       /* inputs that cannot be combined */
	OL_E_TOOL_FAILED,    /* a subprocess exited non-zero or was killed */
	OL_E_UNSUPPORTED,    /* valid input that offlink does not handle */
	OL_E_INTERRUPTED,    /* stopped by SIGINT/SIGTERM */
	OL_E_REPORTED,       /* errors were already reported one by one */
	OL_E__COUNT
};

/* The one-line message for an error code; never NULL. */
const char *ol_strerror(enum ol_err err);

#endif
