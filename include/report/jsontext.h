/*
 * jsontext.h - a results document as text, fast.
 *
 * json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) takes ~160 ms
 * for the 16 MB document of a 1024-process run: a call through its
 * callback per token, an snprintf per number, a hash-table insert and
 * delete per object and array (its loop check).  This writes the same
 * bytes into one growing buffer, integers by hand.  Reals are printed as
 * jansson prints them ("%.17g", ".0" added to an integral one, the
 * exponent without '+' or leading zeros); whether this jansson does so is
 * checked once per process on a set of probe values, and where it does not
 * (another jansson build, a locale's decimal comma) json_dumps is used.
 */
#ifndef REPLAY_REPORT_JSONTEXT_H
#define REPLAY_REPORT_JSONTEXT_H

#include <stddef.h>
#include <jansson.h>

/* The text (NUL-terminated, malloc'd; *len its length), or NULL where
 * json_dumps fails too (out of memory, a string that is not UTF-8, nesting
 * over 2048, a document that is not an object or an array). */
char *json_text(const json_t *doc, size_t *len);

/* The real as jansson prints it with JSON_REAL_PRECISION(17) (buf: 32
 * bytes at least); its length. */
int json_text_real(char *buf, double v);

/*
 * Text from a trace or the system (a path, a rank or host name, a line
 * excerpt, a syscall name) as a JSON string jansson always takes.  Text
 * that is UTF-8 without a NUL byte is kept as it is, byte for byte.  Other
 * text gets each byte that is not part of a UTF-8 sequence (overlong forms,
 * surrogates, code points above U+10FFFF, cut-short sequences, lone
 * continuation bytes, NUL) written as the 4 characters \xHH (two lowercase
 * hex digits, as strace -x shows such bytes) and, in such text only, each
 * backslash doubled (\\), so the bytes can be told back unambiguously.
 * The result never holds a NUL byte.
 */

/* Is s[0..n) UTF-8 without a NUL byte (kept as it is)? */
int json_text_is_utf8(const char *s, size_t n);

/* s[0..n) as above: malloc'd, NUL-terminated, *outlen its length (when
 * outlen is not NULL); NULL when out of memory. */
char *json_text_escape(const char *s, size_t n, size_t *outlen);

/* A JSON string of s (NUL-terminated) / s[0..n) as above; NULL for a NULL
 * s, or out of memory. */
json_t *json_text_str(const char *s);
json_t *json_text_strn(const char *s, size_t n);

/* json_object_set_new(o, key, v) with key as above: steals v (also when it
 * fails); -1 when v is NULL or it fails, else 0. */
int json_text_set(json_t *o, const char *key, json_t *v);

#endif
