/* mpi_world.c - what an MPI task sees of its world under a launcher: one
 * line per task, "rank R size S host H slurm_procid P", for the Slurm tests
 * (tests/e2e/slurm_mpi.sh) to check that srun's MPI plug-in really joins the
 * tasks into one world (MPICH under --mpi=pmix silently does not: every task
 * is a singleton of size 1).  The ranks also exchange a value around a ring,
 * so a world that only claims its size fails. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, from = -1;
	char host[256] = "?";
	const char *procid = getenv("SLURM_PROCID");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	gethostname(host, sizeof(host) - 1);
	MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &from, 1, MPI_INT,
		     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d size %d host %s slurm_procid %s ring_from %d\n", rank, size, host,
	       procid ? procid : "-", from);
	MPI_Finalize();
	return 0;
}
