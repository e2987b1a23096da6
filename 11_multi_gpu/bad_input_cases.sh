# 11_multi_gpu/bad_input_cases.sh: the kinds of bad input only this exercise knows about,
# sourced by common/bad_input.sh (which gives $program, $tmp and expect NEEDLE PROGRAM ARGS...).
# Every GPU needs a rank: fewer ranks than GPUs is refused before any GPU is looked at.
expect "--ranks: must be at least --gpus" "$program" --gpus 2 --ranks 1
