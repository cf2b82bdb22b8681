// Marks the definitions that form a stand-in library's public ABI. Everything else is built
// with -fvisibility=hidden, and each library's version script (exports/*.map) then puts the
// public names under the node the real library uses, so a program linked against the real
// toolkit binds to the stand-in without noticing.
#pragma once

#define STANDIN_EXPORT __attribute__((visibility("default")))
