def call_api(prompt, options, context):
    suffix = options.get("config", {}).get("suffix", "")
    return {"output": prompt.upper() + suffix}
