/* sequence.h: render --frames A-B -o out_%04d.png: the frame range and the output pattern.
 * The pattern is never handed to printf: it is checked to hold exactly one %0Nd (N from 1 to
 * 9) and no other '%', split there, and each name is built as prefix, number, suffix. */
#ifndef SR_SEQUENCE_H
#define SR_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>

#define SR_FRAMES_MAX 9999999u   /* the last frame number (scene_camera_path.c holds the same) */
#define SR_SEQUENCE_MAX_FRAMES 100000u   /* frames one --frames range may hold */

/* "A-B" (A <= B) or "A": 0, or -1 with a message. */
int sr_frames_parse(const char *text, uint32_t *first, uint32_t *last, char *msg, size_t cap);
/* 0 when pattern holds exactly one %0Nd and no other '%'; -1 with a message. */
int sr_frame_pattern_check(const char *pattern, char *msg, size_t cap);
/* The name of frame `frame` (pattern checked first). 0, or -1 when it does not fit in cap. */
int sr_frame_pattern_name(const char *pattern, uint32_t frame, char *buf, size_t cap);

#endif
