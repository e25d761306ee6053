/* sequence.h: render --frames A-B -o out_%04d.png: the frame range, the output pattern and the
 * settings file beside the frames (the CLI's own, no part of the library).
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

/* The settings that decide a sequence's images, kept beside its frames in a small text file
 * (the pattern's name + ".settings", one "key value" a line), so that a rerun with other
 * settings is told apart from a resumed one. The mask, backend, devices and threads are not
 * among them: every one gives the same image. */
typedef struct sr_sequence_settings {
    const char *scene;           /* the scene file (kept as its full path)         */
    uint32_t width, height, spp, depth, seed, camera_index;
    const char *integrator;
    float exposure;
    const char *tonemap;         /* PNG frames only (NULL otherwise)               */
    const char *exr_type;        /* EXR frames only (NULL otherwise)               */
} sr_sequence_settings;

/* pattern + ".settings" into buf: 0, or -1 when it does not fit. */
int sr_sequence_settings_path(const char *pattern, char *buf, size_t cap);
/* The settings as the file holds them, into buf: 0, or -1 when they do not fit. */
int sr_sequence_settings_text(const sr_sequence_settings *s, char *buf, size_t cap);
/* Compare the file at path with text (sr_sequence_settings_text): 0 the same, -1 no such file,
 * 1 they differ: msg says which setting first, as the frames have it and as text does
 * ("--width 64, and this run has --width 128"), or that the file cannot be read. */
int sr_sequence_settings_differ(const char *path, const char *text, char *msg, size_t cap);

#endif
