// Package chat is the OpenAI-compatible chat completions wire, POST
// {baseURL}/chat/completions, as evalgate speaks it twice: runner.OpenAI
// drives a model as the agent under test and judges.OpenAI asks one for
// rubric verdicts. Both send a Request and read a Response through a
// Client, which tries again as the caller's retry.Policy says and reads
// every answer whole, up to a cap, within its attempt; both price the
// usage a server reports with one Pricing.
//
// What a server says may quote the conversation, so the wire keeps it
// apart: an Answer's ErrorKind names the API's error type and code, which
// evalgate may repeat in its outputs; its Body is for transcripts only.
//
//	c := chat.NewClient(chat.Options{
//		BaseURL: "http://127.0.0.1:8000/v1",
//		HTTP:    client,
//		Retry:   retry.Policy{Attempts: 4, Interval: retryInterval},
//	})
//	payload, _ := json.Marshal(&chat.Request{Model: "m", Messages: msgs})
//	ans, err := c.Post(ctx, payload)
//	if err == nil && ans.StatusCode == http.StatusOK && !ans.TooLarge {
//		resp, err := ans.Decode()
//		...
//	}
//
// It is internal: the wire is how evalgate talks to models, not an API of
// its own.
package chat
