#!/bin/sh
# Writes without end: the output cap must stop it, in bounded memory.
exec yes 'flooding the pipe'
