/* The subcommands of gguf-edit, one file each (cmd_<verb>.c): each one's description (its
 * options, help and run function; run takes argv with argv[0] the verb and returns an exit
 * status). */
#ifndef GGUF_TOOLS_COMMANDS_H
#define GGUF_TOOLS_COMMANDS_H

#include "opt.h"

extern const opt_command cmd_show;
extern const opt_command cmd_copy;
extern const opt_command cmd_verify;
extern const opt_command cmd_split;
extern const opt_command cmd_merge;
/* cmd_edit.c */
extern const opt_command cmd_set, cmd_rm, cmd_rename, cmd_realign, cmd_edit, cmd_reserve;
extern const opt_command cmd_get;
extern const opt_command cmd_hash;
extern const opt_command cmd_tensor;
extern const opt_command cmd_diff;
extern const opt_command cmd_convert;
extern const opt_command cmd_requant;
extern const opt_command cmd_recover;
extern const opt_command cmd_estimate;

#endif
