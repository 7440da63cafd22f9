def get_assert(output, context):
    return context["vars"]["question"] in output
