/* The files of an fd_hash_files call side by side in the lanes of a
 * multi-buffer kernel (files/file_lanes.c), on the machinery parts.c's
 * parts run on (lanes.h).
 *
 * A request can have lanes when it asks for one algorithm whose family
 * has a multi-buffer kernel (fd_batch_multi_kernel), no git object type,
 * and not without_lanes, and when each of its threads (no more than the
 * groups of lanes its files make) gets enough files for the lanes to pay
 * (fd_batch_lanes_pay); otherwise each file goes by
 * itself (reader.h), a big one perhaps on two threads. Where the kernel
 * has a narrower one (dispatch.h) and the files are too few to give each
 * thread a group of its lanes, yet make no more groups of the narrower
 * kernel's than threads, the calling thread chooses between the two as it
 * opens its first files, the only point at which sizes are known: it
 * takes them into the narrower kernel's lanes, and once they hold
 * FD_BATCH_MIN_WORK_PER_NARROWED_THREAD bytes (what a thread must have
 * for digest_many to narrow, hash/batch.h), the narrower kernel runs on
 * every part, each with files in lanes of its own; when those lanes are
 * full short of that, the kernel itself does, and small files pay for no
 * thread. The other parts start once it has chosen. Each thread then
 * holds up to that many files open, each in a lane of its own, reads the
 * next stripe of each per round, sequentially at the file's position, and
 * hashes the stripes' whole blocks in one kernel call; a file less than a
 * block from the size its open found has its last bytes read and fed
 * through the stream layer, its digest written, and its lane takes the
 * next file not yet taken. A file that is not regular, or of size 0 (a
 * /proc file, whose size says nothing), is read by the thread by itself
 * (reader.h) when it takes it, its lanes waiting.
 *
 * What a file's digest is of does not change: each byte read once, in
 * order, up to the first read that comes short (a prefix of a file cut
 * short) or the size the open found, whichever comes first; the first
 * failure in order is the call's, every file before it still hashed.
 * Plain C: no Python.h. */
#ifndef FD_CORE_FILES_FILE_LANES_H
#define FD_CORE_FILES_FILE_LANES_H

#include <stdbool.h>
#include <stddef.h>

#include "files/run.h"

/* Sets run->plan for a request to run on *parts threads: lanes when it
 * can have them (above), else none (multi NULL), and run->narrower when
 * the calling thread is to choose the narrower kernel or not (its multi
 * NULL when not). With lanes,
 * *parts becomes no more than the groups of a kernel's lanes the files
 * make, as digest_many's batches go (hash/batch.h): a kernel call takes as
 * long however few of its lanes are busy, so a group split between two
 * threads takes each of them the rounds it takes one, and the default
 * threads are never slower than one. */
void fd_files_plan_lanes(fd_files_run *run, size_t *parts);

/* The thread of part: files taken into its lanes until none is left, as
 * fd_files_take_file gives them, each failure recorded. Returns false,
 * with no file taken, when it cannot have the memory for its stripes: the
 * thread then takes files one at a time (reader.h). */
bool fd_files_hash_in_lanes(fd_files_run *run, size_t part);

#endif /* FD_CORE_FILES_FILE_LANES_H */
