/* A small MPI-IO checkpoint: N-to-1 shared file, a cross-rank read, N-to-N files. */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define BLK 65536
#define NB 4
int main(int argc, char **argv)
{
	int rank, n; char *buf = malloc(BLK), path[256]; MPI_File fh; MPI_Status st;
	MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &n);
	memset(buf, 'a' + rank, BLK);
	snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	for (int i = 0; i < NB; i++)
		MPI_File_write_at(fh, (MPI_Offset)(rank * NB + i) * BLK, buf, BLK, MPI_BYTE, &st);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_read_at(fh, (MPI_Offset)(((rank + 1) % n) * NB) * BLK, buf, BLK, MPI_BYTE, &st);
	MPI_File_close(&fh);
	snprintf(path, sizeof path, "%s/rank%d.dat", argv[1], rank);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (int i = 0; i < 3; i++) write(fd, buf, 10000);
	fsync(fd); close(fd);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		for (int r = 1; r < n; r++) {
			snprintf(path, sizeof path, "%s/rank%d.dat", argv[1], r);
			fd = open(path, O_RDONLY); read(fd, buf, BLK); close(fd);
		}
	}
	MPI_Finalize();
	return 0;
}
