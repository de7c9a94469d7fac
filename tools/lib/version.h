/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The toolkit's version, the one place it is set: each tool's --version
 * prints it, and tools/Makefile reads it for the Debian package.
 */
#ifndef DLK_VERSION_H
#define DLK_VERSION_H

#define DLK_VERSION "1.0"

#endif
