/*
 * standalone.c - main() for a harness outside libFuzzer: each argument is
 * an input file, or a directory whose files are inputs; every one is fed
 * to LLVMFuzzerTestOneInput once.  The normal build's tests run the
 * regression inputs of tests/data/fuzz-regress/<target>/ this way (under
 * ASan+UBSan in the sanitizer build), so a fixed crash stays fixed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, n = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	/* an exact-size copy, so ASan sees a read past the input's end */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README"))
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || !(nn[n] = malloc(strlen(dir) + strlen(de->d_name) + 2))) {
			names = nn ? nn : names;
			rc = -1;
			break;
		}
		names = nn;
		sprintf(names[n++], "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (!rc && run_file(names[i]))
			rc = -1;
		else if (!rc)
			(*count)++;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : run_file(argv[i]))
			return 1;
		if (!S_ISDIR(st.st_mode))
			count++;
	}
	printf("%u inputs ran without a crash\n", count);
	return 0;
}
