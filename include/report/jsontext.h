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

#endif
