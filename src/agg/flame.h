/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --svg: an interactive flame graph of count's stacks, drawn by ksnoop
 * itself as one self-contained SVG file. Each frame is a box as wide as
 * the samples under it, callers below callees; its tooltip gives the
 * samples and share. A click zooms to a frame, "Search" highlights the
 * frames a regular expression matches and says what share of all samples
 * they hold. The frames are the folded lines' (format.h), merged by path.
 * A URL fragment does the same on opening: #search=REGEX, #zoom=NAME.
 */
#ifndef KSNOOP_AGG_FLAME_H
#define KSNOOP_AGG_FLAME_H

#include <stdio.h>

#include "agg/table.h"

/* The stacks of tables[0..nr) as an SVG flame graph into f; title heads it. 0 or -ENOMEM. */
int flame_write_svg(FILE *f, struct agg_table *const *tables, int nr, const char *title);

#endif
