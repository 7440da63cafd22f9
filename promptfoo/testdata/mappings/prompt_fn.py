def make(context):
    return "made"
